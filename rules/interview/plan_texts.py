"""The words of the plan the engine writes itself (rules/interview/plan.py: the Planner's fallback, the last-resort
question, a follow-up's opening question), in the interview's language. Pure data, read by the workflow's sandbox.

In English the topic is woven into the questions as a phrase (`topic_phrase`: "what on-call taught you"); that
rewrite is English grammar, so in every other language the topic stands as the person wrote it, in quotation
marks, where the sentence names it. Section ids and dimension names stay English (ids, never shown); what the
interviewee reads — questions, follow-ups, section titles — is in their language. A language without texts here
gets English (`plan_texts`), as the page catalogs' languages (client/web/locale) all have them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PlanTexts:
    """One language's texts. `{t}`: the topic (English: a phrase; others: quoted as written)."""

    quote: str                      # how the topic is quoted: "“{t}”", "「{t}」", …
    titles: tuple[str, str, str, str]            # opening, story, tensions, reflection
    opening: tuple[str, str]
    story: tuple[str, str]
    tensions: tuple[str, str, str]
    reflection: tuple[str, str]
    example: str                    # structured follow-up: a concrete example
    add: str                        # structured follow-up: what would you add
    more_about: str                 # a dimension's default follow-up ({d}: the dimension, as the plan names it)
    last_resort: str                # every question was answered in an earlier session
    more_title: str                 # the title of that one section
    go_deeper: str                  # a follow-up session with no suggested question ({t}: its topic)


ENGLISH = PlanTexts(
    quote="{t}",
    titles=("Where it started", "A defining experience", "Trade-offs and disagreements", "Looking back and ahead"),
    opening=("When you think about {t}, where does your story begin, and why does it still matter to you?",
             "When it comes to {t}, what is at stake that most people miss?"),
    story=("Tell me about a specific moment that shaped how you see {t}. What happened?",
           "What did you change afterwards, and what did it cost you?"),
    tensions=("Where do you disagree with the conventional wisdom about {t}?",
              "What trade-off do you make that others would not?",
              "How would you know whether you have got this right?"),
    reflection=("What is the one thing you wish more people understood about {t}?",
                "If you could go back and do one thing differently, what would it be?"),
    example="Can you give a concrete example of the {d}?",
    add="What would you add about the {d}?",
    more_about="Could you say more about {d}?",
    last_resort="What would you like to add to what we have talked about so far?",
    more_title="Anything to add",
    go_deeper="Let's go deeper on {t}: where should we start?",
)

TEXTS: dict[str, PlanTexts] = {
    "en": ENGLISH,
    "es": PlanTexts(
        quote="«{t}»",
        titles=("Dónde empezó", "Una experiencia decisiva", "Compromisos y desacuerdos", "Mirar atrás y adelante"),
        opening=("Cuando piensa en {t}, ¿dónde empieza su historia y por qué le sigue importando?",
                 "En lo que respecta a {t}, ¿qué está en juego que la mayoría de la gente no ve?"),
        story=("Cuénteme un momento concreto que marcó su forma de ver {t}. ¿Qué pasó?",
               "¿Qué cambió después y qué le costó?"),
        tensions=("¿En qué no está de acuerdo con la opinión habitual sobre {t}?",
                  "¿Qué compromiso asume usted que otros no asumirían?",
                  "¿Cómo sabría si lo está haciendo bien?"),
        reflection=("¿Qué es lo que más le gustaría que la gente entendiera sobre {t}?",
                    "Si pudiera volver atrás y hacer una cosa de otra manera, ¿cuál sería?"),
        example="¿Puede darme un ejemplo concreto?",
        add="¿Qué añadiría sobre esto?",
        more_about="¿Podría contarme más sobre {d}?",
        last_resort="¿Qué le gustaría añadir a lo que hemos hablado hasta ahora?",
        more_title="Algo más",
        go_deeper="Profundicemos en {t}: ¿por dónde empezamos?",
    ),
    "fr": PlanTexts(
        quote="« {t} »",
        titles=("Les débuts", "Une expérience décisive", "Arbitrages et désaccords", "Regards en arrière et en avant"),
        opening=("Quand vous pensez à {t}, où commence votre histoire, et pourquoi est-ce encore important pour "
                 "vous ?",
                 "Pour ce qui est de {t}, quel est l'enjeu que la plupart des gens ne voient pas ?"),
        story=("Racontez-moi un moment précis qui a façonné votre regard sur {t}. Que s'est-il passé ?",
               "Qu'avez-vous changé ensuite, et qu'est-ce que cela vous a coûté ?"),
        tensions=("Sur quel point n'êtes-vous pas d'accord avec l'idée reçue sur {t} ?",
                  "Quel compromis faites-vous que d'autres ne feraient pas ?",
                  "Comment sauriez-vous que vous avez vu juste ?"),
        reflection=("Quelle est la chose que vous aimeriez que plus de gens comprennent à propos de {t} ?",
                    "Si vous pouviez revenir en arrière et faire une chose autrement, laquelle serait-ce ?"),
        example="Pouvez-vous donner un exemple concret ?",
        add="Qu'ajouteriez-vous à ce sujet ?",
        more_about="Pourriez-vous m'en dire plus sur {d} ?",
        last_resort="Qu'aimeriez-vous ajouter à ce dont nous avons parlé jusqu'ici ?",
        more_title="Autre chose",
        go_deeper="Approfondissons {t} : par où commencer ?",
    ),
    "de": PlanTexts(
        quote="„{t}“",
        titles=("Wie es anfing", "Ein prägendes Erlebnis", "Abwägungen und Widerspruch", "Rückblick und Ausblick"),
        opening=("Wenn Sie an {t} denken: Wo beginnt Ihre Geschichte, und warum ist sie Ihnen noch heute wichtig?",
                 "Was steht bei {t} auf dem Spiel, das die meisten übersehen?"),
        story=("Erzählen Sie mir von einem bestimmten Moment, der Ihren Blick auf {t} geprägt hat. Was ist passiert?",
               "Was haben Sie danach geändert, und was hat es Sie gekostet?"),
        tensions=("Wo widersprechen Sie der gängigen Meinung über {t}?",
                  "Welchen Kompromiss gehen Sie ein, den andere nicht eingehen würden?",
                  "Woran würden Sie erkennen, ob Sie richtig liegen?"),
        reflection=("Was würden Sie sich wünschen, dass mehr Menschen über {t} verstehen?",
                    "Wenn Sie zurückgehen und eine Sache anders machen könnten, welche wäre das?"),
        example="Können Sie ein konkretes Beispiel nennen?",
        add="Was würden Sie dazu noch ergänzen?",
        more_about="Können Sie mehr über {d} erzählen?",
        last_resort="Was möchten Sie zu dem, worüber wir bisher gesprochen haben, noch ergänzen?",
        more_title="Noch etwas",
        go_deeper="Gehen wir bei {t} tiefer: Wo sollen wir anfangen?",
    ),
    "pt": PlanTexts(
        quote="“{t}”",
        titles=("Onde começou", "Uma experiência decisiva", "Escolhas e discordâncias", "Olhar para trás e para a frente"),
        opening=("Quando você pensa em {t}, onde começa a sua história e por que ela ainda importa para você?",
                 "Quando se trata de {t}, o que está em jogo que a maioria das pessoas não percebe?"),
        story=("Conte-me sobre um momento específico que moldou a sua visão sobre {t}. O que aconteceu?",
               "O que você mudou depois e quanto isso lhe custou?"),
        tensions=("Em que você discorda da opinião corrente sobre {t}?",
                  "Que escolha você faz que outras pessoas não fariam?",
                  "Como você saberia se está acertando?"),
        reflection=("Qual é a coisa que você gostaria que mais pessoas entendessem sobre {t}?",
                    "Se pudesse voltar atrás e fazer uma coisa de forma diferente, qual seria?"),
        example="Pode dar um exemplo concreto?",
        add="O que você acrescentaria sobre isso?",
        more_about="Poderia falar mais sobre {d}?",
        last_resort="O que você gostaria de acrescentar ao que conversamos até agora?",
        more_title="Algo mais",
        go_deeper="Vamos aprofundar {t}: por onde começamos?",
    ),
    "it": PlanTexts(
        quote="«{t}»",
        titles=("Dove è cominciato", "Un'esperienza decisiva", "Compromessi e disaccordi", "Guardare indietro e avanti"),
        opening=("Quando pensa a {t}, dove comincia la sua storia e perché conta ancora per lei?",
                 "Quando si parla di {t}, che cosa è in gioco che la maggior parte delle persone non vede?"),
        story=("Mi racconti un momento preciso che ha cambiato il suo modo di vedere {t}. Che cosa è successo?",
               "Che cosa ha cambiato dopo, e quanto le è costato?"),
        tensions=("Su che cosa non è d'accordo con l'opinione comune su {t}?",
                  "Quale compromesso accetta che altri non accetterebbero?",
                  "Come capirebbe se sta facendo la cosa giusta?"),
        reflection=("Qual è la cosa che vorrebbe che più persone capissero di {t}?",
                    "Se potesse tornare indietro e fare una cosa diversamente, quale sarebbe?"),
        example="Può fare un esempio concreto?",
        add="Che cosa aggiungerebbe su questo?",
        more_about="Potrebbe dirmi di più su {d}?",
        last_resort="Che cosa vorrebbe aggiungere a quello di cui abbiamo parlato finora?",
        more_title="Altro da aggiungere",
        go_deeper="Approfondiamo {t}: da dove cominciamo?",
    ),
    "nl": PlanTexts(
        quote="‘{t}’",
        titles=("Hoe het begon", "Een bepalende ervaring", "Afwegingen en onenigheid", "Terugkijken en vooruitkijken"),
        opening=("Als u aan {t} denkt, waar begint uw verhaal dan, en waarom is het nog steeds belangrijk voor u?",
                 "Wat staat er bij {t} op het spel dat de meeste mensen over het hoofd zien?"),
        story=("Vertel me over een bepaald moment dat uw kijk op {t} heeft gevormd. Wat gebeurde er?",
               "Wat heeft u daarna veranderd, en wat heeft het u gekost?"),
        tensions=("Waarin bent u het oneens met de gangbare opvatting over {t}?",
                  "Welke afweging maakt u die anderen niet zouden maken?",
                  "Hoe zou u weten of u het goed doet?"),
        reflection=("Wat zou u willen dat meer mensen begrepen over {t}?",
                    "Als u terug kon gaan en één ding anders kon doen, wat zou dat zijn?"),
        example="Kunt u een concreet voorbeeld geven?",
        add="Wat zou u daar nog aan toevoegen?",
        more_about="Kunt u meer vertellen over {d}?",
        last_resort="Wat wilt u nog toevoegen aan wat we tot nu toe hebben besproken?",
        more_title="Nog iets",
        go_deeper="Laten we dieper ingaan op {t}: waar beginnen we?",
    ),
    "ja": PlanTexts(
        quote="「{t}」",
        titles=("始まり", "転機となった経験", "トレードオフと異論", "振り返りとこれから"),
        opening=("{t}について考えるとき、あなたの物語はどこから始まりますか？また、なぜ今も大切なのですか？",
                 "{t}に関して、多くの人が見落としている大事な点は何ですか？"),
        story=("{t}についての見方を形づくった、具体的な出来事を教えてください。何が起きたのですか？",
               "その後、何を変えましたか？そして、それにはどんな代償がありましたか？"),
        tensions=("{t}についての一般的な考え方に、どんな点で異論がありますか？",
                  "他の人ならしないような、どんなトレードオフをしていますか？",
                  "うまくいっているかどうかは、どうすればわかりますか？"),
        reflection=("{t}について、もっと多くの人に理解してほしいことは何ですか？",
                    "もし過去に戻って一つだけ違うやり方ができるとしたら、それは何ですか？"),
        example="具体的な例を挙げていただけますか？",
        add="そのことについて、付け加えたいことはありますか？",
        more_about="{d}について、もう少し詳しく教えていただけますか？",
        last_resort="これまでお話ししたことに、付け加えたいことはありますか？",
        more_title="付け加えたいこと",
        go_deeper="{t}について、さらに掘り下げましょう。どこから始めましょうか？",
    ),
    "zh": PlanTexts(
        quote="“{t}”",
        titles=("起点", "关键的经历", "取舍与分歧", "回顾与展望"),
        opening=("当您想到{t}时，您的故事从哪里开始？为什么它对您至今仍然重要？",
                 "说到{t}，有哪些利害是大多数人忽视的？"),
        story=("请讲一个塑造了您对{t}看法的具体时刻。当时发生了什么？",
               "之后您改变了什么？这让您付出了什么代价？"),
        tensions=("在{t}这件事上，您在哪些方面不同意通常的看法？",
                  "您做了哪些别人不会做的取舍？",
                  "您怎么知道自己做得对不对？"),
        reflection=("关于{t}，您最希望更多人理解的一件事是什么？",
                    "如果可以回到过去，把一件事换个做法，那会是什么？"),
        example="您能举一个具体的例子吗？",
        add="关于这一点，您还想补充什么？",
        more_about="关于{d}，您能再多讲一些吗？",
        last_resort="对于我们到目前为止谈到的内容，您还想补充什么？",
        more_title="补充",
        go_deeper="我们来深入谈谈{t}：从哪里开始呢？",
    ),
    "ar": PlanTexts(
        quote="«{t}»",
        titles=("البداية", "تجربة فاصلة", "المفاضلات والاختلافات", "نظرة إلى الماضي والمستقبل"),
        opening=("عندما تفكر في {t}، من أين تبدأ قصتك، ولماذا ما زالت مهمة بالنسبة لك؟",
                 "فيما يتعلق بـ{t}، ما الذي على المحك ولا يراه معظم الناس؟"),
        story=("حدّثني عن لحظة محددة شكّلت نظرتك إلى {t}. ماذا حدث؟",
               "ما الذي غيّرته بعد ذلك، وكم كلّفك ذلك؟"),
        tensions=("في أي شيء تختلف مع الرأي السائد حول {t}؟",
                  "ما المفاضلة التي تقوم بها ولا يقوم بها الآخرون؟",
                  "كيف تعرف إن كنت على صواب في هذا؟"),
        reflection=("ما الشيء الذي تتمنى أن يفهمه المزيد من الناس عن {t}؟",
                    "لو استطعت العودة وفعل شيء واحد بشكل مختلف، فماذا سيكون؟"),
        example="هل يمكنك أن تعطي مثالاً ملموساً؟",
        add="ماذا تضيف حول هذا الموضوع؟",
        more_about="هل يمكنك أن تخبرني المزيد عن {d}؟",
        last_resort="ما الذي تود إضافته إلى ما تحدثنا عنه حتى الآن؟",
        more_title="إضافات",
        go_deeper="لنتعمق أكثر في {t}: من أين نبدأ؟",
    ),
    "hi": PlanTexts(
        quote="“{t}”",
        titles=("शुरुआत कहाँ से हुई", "एक निर्णायक अनुभव", "समझौते और असहमतियाँ", "पीछे और आगे देखना"),
        opening=("जब आप {t} के बारे में सोचते हैं, तो आपकी कहानी कहाँ से शुरू होती है, और यह आज भी आपके लिए क्यों "
                 "मायने रखती है?",
                 "{t} के मामले में ऐसा क्या दाँव पर है जिसे ज़्यादातर लोग नहीं देख पाते?"),
        story=("मुझे किसी ऐसे खास पल के बारे में बताइए जिसने {t} को देखने का आपका नज़रिया बदल दिया। क्या हुआ था?",
               "उसके बाद आपने क्या बदला, और उसकी आपको क्या कीमत चुकानी पड़ी?"),
        tensions=("{t} के बारे में आम राय से आप किस बात पर असहमत हैं?",
                  "आप कौन-सा ऐसा समझौता करते हैं जो दूसरे नहीं करेंगे?",
                  "आपको कैसे पता चलेगा कि आप सही कर रहे हैं?"),
        reflection=("{t} के बारे में वह कौन-सी एक बात है जो आप चाहते हैं कि ज़्यादा लोग समझें?",
                    "अगर आप पीछे जाकर एक चीज़ अलग तरह से कर पाते, तो वह क्या होती?"),
        example="क्या आप एक ठोस उदाहरण दे सकते हैं?",
        add="इस बारे में आप और क्या जोड़ना चाहेंगे?",
        more_about="क्या आप {d} के बारे में और बता सकते हैं?",
        last_resort="अब तक हमने जो बात की है, उसमें आप और क्या जोड़ना चाहेंगे?",
        more_title="कुछ और",
        go_deeper="आइए {t} पर और गहराई से बात करें: कहाँ से शुरू करें?",
    ),
    "sw": PlanTexts(
        quote="“{t}”",
        titles=("Ilivyoanza", "Tukio muhimu", "Maamuzi na tofauti za maoni", "Kutazama nyuma na mbele"),
        opening=("Unapofikiria kuhusu {t}, hadithi yako inaanzia wapi, na kwa nini bado ni muhimu kwako?",
                 "Linapokuja suala la {t}, ni nini kilicho hatarini ambacho watu wengi hawakioni?"),
        story=("Niambie kuhusu wakati fulani maalum uliobadilisha jinsi unavyoona {t}. Nini kilitokea?",
               "Ulibadilisha nini baadaye, na kilikugharimu nini?"),
        tensions=("Ni wapi hukubaliani na mtazamo wa kawaida kuhusu {t}?",
                  "Ni uamuzi gani unaofanya ambao wengine wasingefanya?",
                  "Ungejuaje kama unafanya jambo hili ipasavyo?"),
        reflection=("Ni jambo gani moja ungependa watu wengi zaidi walielewe kuhusu {t}?",
                    "Kama ungeweza kurudi nyuma na kufanya jambo moja tofauti, lingekuwa lipi?"),
        example="Je, unaweza kutoa mfano halisi?",
        add="Ungeongeza nini kuhusu hili?",
        more_about="Je, unaweza kueleza zaidi kuhusu {d}?",
        last_resort="Ungependa kuongeza nini kwa yale tuliyozungumza hadi sasa?",
        more_title="Mengineyo",
        go_deeper="Tuzungumze kwa kina zaidi kuhusu {t}: tuanzie wapi?",
    ),
}


def plan_texts(language: str | None) -> PlanTexts:
    """The plan's texts in a language (its base language's: 'pt-BR' → 'pt'); English when none is shipped."""
    code = (language or "en").strip()
    return TEXTS.get(code) or TEXTS.get(code.replace("_", "-").split("-")[0].lower(), ENGLISH)
